//! k nearest in Hamming space, checked against the exhaustive search of the reference for
//! every code type, ties across chunks and windows, allow-lists, batches, strided codes and
//! outputs, every index type, and prepared calls recorded again with other queries; and the
//! rules of a search's bindings.

use gpu_xor::reference::k_nearest;
use gpu_xor::{
    Context, DataType, ErrorKind, Knn, KnnBindings, KnnDesc, Tensor, TensorBinding, TensorDesc,
};
use gpu_xor_testkit::engine::read_back_blocking;

use crate::common::{buffer, ctx, random_bytes, small_windows, webgpu_rules};

/// A set of codes: `batch` sets of `rows` codes of `words` words, rows `pad` words apart.
#[derive(Clone, Copy, Debug)]
struct Codes {
    data_type: DataType,
    batch: u32,
    rows: u32,
    words: u32,
    pad: u32,
}

impl Codes {
    fn new(data_type: DataType, rows: u32, words: u32) -> Codes {
        Codes {
            data_type,
            batch: 1,
            rows,
            words,
            pad: 0,
        }
    }

    fn desc(&self) -> TensorDesc {
        let pitch = self.words + self.pad;
        let d = TensorDesc::new(self.data_type, &[self.batch, self.rows, self.words]);
        if self.pad == 0 {
            d
        } else {
            d.with_strides(&[self.rows * pitch, pitch, 1])
        }
    }

    fn bytes(&self) -> usize {
        let size = self.data_type.size_in_bytes() as usize;
        ((self.batch * self.rows * (self.words + self.pad)) as usize * size).next_multiple_of(4)
    }

    /// The bytes of code `r` of batch `b`.
    fn row<'a>(&self, bytes: &'a [u8], b: u32, r: u32) -> &'a [u8] {
        let size = self.data_type.size_in_bytes() as usize;
        let at = ((b * self.rows + r) * (self.words + self.pad)) as usize * size;
        &bytes[at..at + self.words as usize * size]
    }
}

/// Random codes with few distinct bits, so that distances tie often: each byte keeps the
/// bits of `mask`.
fn codes_bytes(seed: u64, codes: &Codes, mask: u8) -> Vec<u8> {
    random_bytes(seed, codes.bytes())
        .into_iter()
        .map(|b| b & mask)
        .collect()
}

struct Search {
    queries: Codes,
    codes: Codes,
    k: u32,
    index_type: DataType,
    /// One bit a code, when the search has an allow-list.
    allow: Option<Vec<u8>>,
}

/// Runs `s` on `ctx` as a prepared call and checks both outputs against the reference, and
/// that nothing around the outputs changed.
fn check(ctx: &Context, s: &Search, qb: &[u8], cb: &[u8]) {
    let mut desc = KnnDesc::new(s.queries.desc(), s.codes.desc(), s.k, s.index_type);
    if let Some(a) = &s.allow {
        desc = desc.with_allow_list(TensorDesc::new(DataType::U8, &[a.len() as u32]));
    }
    let op = Knn::new(ctx, &desc).unwrap_or_else(|e| panic!("{e}"));
    let batch = s.queries.batch.max(s.codes.batch);
    let results = (batch * s.queries.rows * s.k) as usize;
    let wide = s.index_type.size_in_bytes() as usize;
    // Outputs at an offset, in buffers filled with a canary.
    let canary = |len: usize| vec![0xa5u8; 256 + len + 256];
    let (q, c) = (buffer(ctx, qb), buffer(ctx, cb));
    let d = buffer(ctx, &canary(4 * results));
    let i = buffer(ctx, &canary(wide * results));
    let a = s.allow.as_ref().map(|a| {
        let mut bytes = a.clone();
        bytes.resize(a.len().next_multiple_of(4), 0);
        buffer(ctx, &bytes)
    });
    let mut bindings = KnnBindings::new(
        TensorBinding::new(&q),
        TensorBinding::new(&c),
        TensorBinding::at(&d, 256),
        TensorBinding::at(&i, 256),
    );
    if let Some(a) = &a {
        bindings = bindings.with_allow_list(TensorBinding::new(a));
    }
    let call = op.prepare(&bindings).unwrap_or_else(|e| panic!("{e}"));
    let mut encoder = ctx.device().create_command_encoder(&Default::default());
    call.record(&mut encoder).unwrap();
    ctx.queue().submit([encoder.finish()]);
    let back = read_back_blocking(ctx, &[d, i]).unwrap();
    for (bytes, len) in [(&back[0], 4 * results), (&back[1], wide * results)] {
        assert!(bytes[..256].iter().all(|&x| x == 0xa5), "before an output");
        assert!(
            bytes[256 + len..].iter().all(|&x| x == 0xa5),
            "after an output"
        );
    }
    let allowed = |n: usize| {
        s.allow
            .as_ref()
            .is_none_or(|a| (a[n / 8] >> (n % 8)) & 1 == 1)
    };
    for b in 0..batch {
        let rows = |set: &Codes, bytes| -> Vec<&[u8]> {
            (0..set.rows)
                .map(|r| set.row(bytes, b % set.batch, r))
                .collect()
        };
        let want = k_nearest(
            &rows(&s.queries, qb),
            &rows(&s.codes, cb),
            s.k as usize,
            allowed,
        );
        for (m, want) in want.iter().enumerate() {
            for (j, &(wd, wi)) in want.iter().enumerate() {
                let e = ((b * s.queries.rows + m as u32) * s.k) as usize + j;
                let gd = u32::from_le_bytes(back[0][256 + 4 * e..][..4].try_into().unwrap());
                let gi = &back[1][256 + wide * e..][..wide];
                let gi = if wide == 8 {
                    u64::from_le_bytes(gi.try_into().unwrap())
                } else {
                    let v = u32::from_le_bytes(gi.try_into().unwrap());
                    if v == u32::MAX {
                        u64::MAX
                    } else {
                        u64::from(v)
                    }
                };
                assert_eq!(
                    (gd, gi),
                    (wd, wi),
                    "batch {b} query {m} result {j} of {:?} against {:?}, k {}",
                    s.queries,
                    s.codes,
                    s.k
                );
            }
        }
    }
}

fn run(ctx: &Context, s: &Search, seed: u64, mask: u8) {
    let qb = codes_bytes(seed, &s.queries, mask);
    let cb = codes_bytes(seed ^ 0x5eed, &s.codes, mask);
    check(ctx, s, &qb, &cb);
}

/// Every integer type, codes of one to many words, k from 1 to every code, with ties at
/// the k-th distance across chunks (few distinct bits).
#[test]
fn searches_match_an_exhaustive_search_for_every_code_type() {
    let ctx = ctx();
    // OpenVINO's bitwise types but the boolean: every integer type.
    let types = DataType::OPENVINO
        .into_iter()
        .filter(|&t| t != DataType::Bool);
    for (t, data_type) in types.enumerate() {
        let size = data_type.size_in_bytes();
        for (w, words) in [1, 3, 32 / size, 128 / size].into_iter().enumerate() {
            for (j, k) in [1, 10, 100, 700].into_iter().enumerate() {
                let s = Search {
                    queries: Codes::new(data_type, 5, words),
                    codes: Codes::new(data_type, 700, words),
                    k,
                    index_type: [DataType::I64, DataType::U32][j % 2],
                    allow: None,
                };
                let mask = [0x11, 0xff, 0x03][(t + w + j) % 3];
                run(ctx, &s, (t * 16 + w * 4 + j) as u64, mask);
            }
        }
    }
}

/// Every code at the same distance: the results are the lowest indices, in order, across
/// the chunks and windows of codes.
#[test]
fn ties_go_to_the_lowest_indices_across_chunks_and_windows() {
    // (A row of 1,024 results is as large as a window of 4 KiB: that search alone is refused
    // there, `shared_buffer_span_too_large`.)
    for (ctx, ks) in [
        (ctx(), &[1, 255, 256, 257, 1024][..]),
        (small_windows(), &[1, 256, 257]),
    ] {
        for &k in ks {
            let s = Search {
                queries: Codes::new(DataType::U32, 3, 8),
                codes: Codes::new(DataType::U32, 3000, 8),
                k,
                index_type: DataType::I32,
                allow: None,
            };
            // All bytes equal: every distance is 0.
            run(ctx, &s, 7, 0);
        }
    }
    // More ties than a query keeps as candidates.
    let s = Search {
        queries: Codes::new(DataType::U64, 2, 4),
        codes: Codes::new(DataType::U64, 5000, 4),
        k: 100,
        index_type: DataType::U64,
        allow: None,
    };
    run(ctx(), &s, 8, 0);
}

/// Queries of one workgroup that take different ways: those whose candidates hold their
/// results, and those with more codes at their k-th distance than the sort holds (many
/// codes equal to them), which read the codes again.
#[test]
fn queries_of_one_workgroup_may_take_different_ways() {
    let ctx = ctx();
    let (q, c) = (
        Codes::new(DataType::U32, 12, 8),
        Codes::new(DataType::U32, 6000, 8),
    );
    let mut qb = codes_bytes(21, &q, 0xff);
    let mut cb = codes_bytes(22, &c, 0xff);
    // Codes 1000 to 2999 are zero, and so are queries 2, 5 and 11.
    cb[1000 * 32..3000 * 32].fill(0);
    for m in [2, 5, 11] {
        qb[m * 32..(m + 1) * 32].fill(0);
    }
    for k in [10, 1024] {
        let s = Search {
            queries: q,
            codes: c,
            k,
            index_type: DataType::I64,
            allow: None,
        };
        check(ctx, &s, &qb, &cb);
    }
}

/// Codes filtered by an allow-list, with fewer allowed codes than k: the sentinel past them.
#[test]
fn allow_lists_filter_and_fill_with_the_sentinel() {
    let ctx = ctx();
    for (seed, k, density) in [(1u64, 10, 0xffu8), (2, 50, 0x11), (3, 600, 0x01), (4, 5, 0)] {
        let n = 1000;
        let allow: Vec<u8> = random_bytes(seed, n / 8)
            .into_iter()
            .map(|b| b & density)
            .collect();
        for index_type in [DataType::U32, DataType::I64] {
            let s = Search {
                queries: Codes::new(DataType::U64, 4, 4),
                codes: Codes::new(DataType::U64, n as u32, 4),
                k,
                index_type,
                allow: Some(allow.clone()),
            };
            run(ctx, &s, seed, 0x37);
        }
    }
}

/// Batches that broadcast, strided (padded) codes and queries, windows of 4 KiB, and the
/// WebGPU binding rules.
#[test]
fn batches_strides_and_windows() {
    for ctx in [ctx(), small_windows(), &webgpu_rules(small_windows())] {
        for (data_type, pad) in [(DataType::U8, 3), (DataType::U16, 1), (DataType::U64, 2)] {
            let words = 32 / data_type.size_in_bytes();
            let s = Search {
                queries: Codes {
                    data_type,
                    batch: 2,
                    rows: 9,
                    words,
                    pad,
                },
                codes: Codes {
                    data_type,
                    batch: 1,
                    rows: 600,
                    words,
                    pad: 0,
                },
                k: 17,
                index_type: DataType::U64,
                allow: None,
            };
            run(ctx, &s, 11, 0x0f);
            let s = Search {
                queries: Codes {
                    batch: 1,
                    ..s.queries
                },
                codes: Codes {
                    batch: 3,
                    pad,
                    ..s.codes
                },
                ..s
            };
            run(ctx, &s, 12, 0x55);
        }
    }
}

/// A prepared search recorded again after its queries changed finds the new results: its
/// scratch starts each search afresh.
#[test]
fn a_prepared_search_runs_again_on_new_queries() {
    let ctx = ctx();
    let (q, c) = (
        Codes::new(DataType::U32, 6, 8),
        Codes::new(DataType::U32, 2000, 8),
    );
    let desc = KnnDesc::new(q.desc(), c.desc(), 20, DataType::I64);
    let op = Knn::new(ctx, &desc).unwrap();
    let cb = codes_bytes(1, &c, 0x33);
    let (qbuf, cbuf) = (buffer(ctx, &codes_bytes(2, &q, 0x33)), buffer(ctx, &cb));
    let (d, i) = (buffer(ctx, &[0; 6 * 20 * 4]), buffer(ctx, &[0; 6 * 20 * 8]));
    let call = op
        .prepare(&KnnBindings::new(
            TensorBinding::new(&qbuf),
            TensorBinding::new(&cbuf),
            TensorBinding::new(&d),
            TensorBinding::new(&i),
        ))
        .unwrap();
    for seed in 3..6 {
        let qb = codes_bytes(seed, &q, 0x33);
        ctx.queue().write_buffer(&qbuf, 0, &qb);
        let mut encoder = ctx.device().create_command_encoder(&Default::default());
        call.record(&mut encoder).unwrap();
        ctx.queue().submit([encoder.finish()]);
        let back = read_back_blocking(ctx, &[d.clone(), i.clone()]).unwrap();
        let rows = |set: &Codes, bytes| -> Vec<&[u8]> {
            (0..set.rows).map(|r| set.row(bytes, 0, r)).collect()
        };
        let want = k_nearest(&rows(&q, &qb), &rows(&c, &cb), 20, |_| true);
        let got: Vec<(u32, u64)> = (0..6 * 20)
            .map(|e| {
                (
                    u32::from_le_bytes(back[0][4 * e..][..4].try_into().unwrap()),
                    u64::from_le_bytes(back[1][8 * e..][..8].try_into().unwrap()),
                )
            })
            .collect();
        assert_eq!(got, want.concat(), "seed {seed}");
    }
}

/// The one-call forms on tensors, as the docs show them.
#[test]
fn one_call_forms() {
    let ctx = ctx();
    let queries = Tensor::from_slice(ctx, &[1, 1], &[0u32]).unwrap();
    let codes = Tensor::from_slice(ctx, &[4, 1], &[0xffu32, 1, 3, 1]).unwrap();
    let (d, i) = ctx.k_nearest(&queries, &codes, 3).unwrap();
    assert_eq!(d.shape(), [1, 3]);
    assert_eq!(d.to_vec::<u32>().unwrap(), [1, 1, 2]);
    assert_eq!(i.to_vec::<i64>().unwrap(), [1, 3, 2]);
    let allow = Tensor::from_slice(ctx, &[1], &[0b0101u8]).unwrap();
    let (d, i) = ctx.k_nearest_allowed(&queries, &codes, &allow, 3).unwrap();
    assert_eq!(d.to_vec::<u32>().unwrap(), [2, 8, u32::MAX]);
    assert_eq!(i.to_vec::<i64>().unwrap(), [2, 0, -1]);
    let e = ctx.k_nearest(&queries, &codes, 5).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::KnnK);
}

/// The rules of a search's bindings: a missing or extra allow-list, an output over an input
/// or over the other output, a misaligned offset, a buffer too small.
#[test]
fn bindings_break_typed_rules() {
    let ctx = ctx();
    let (q, c) = (
        Codes::new(DataType::U32, 2, 2),
        Codes::new(DataType::U32, 40, 2),
    );
    let desc = KnnDesc::new(q.desc(), c.desc(), 4, DataType::U32);
    let op = Knn::new(ctx, &desc).unwrap();
    let big = buffer(ctx, &[0; 4096]);
    let small = buffer(ctx, &[0; 16]);
    let at = |o| TensorBinding::at(&big, o);
    let kind = |b: KnnBindings<'_>| op.prepare(&b).unwrap_err().kind();
    assert!(
        op.prepare(&KnnBindings::new(at(0), at(512), at(1024), at(2048)))
            .is_ok()
    );
    // The queries and codes may overlap each other (a set searched against itself).
    assert!(
        op.prepare(&KnnBindings::new(at(0), at(0), at(1024), at(2048)))
            .is_ok()
    );
    assert_eq!(
        kind(KnnBindings::new(at(0), at(512), at(1024), at(1024))),
        ErrorKind::KnnOverlap
    );
    assert_eq!(
        kind(KnnBindings::new(at(0), at(512), at(520), at(2048))),
        ErrorKind::KnnOverlap
    );
    assert_eq!(
        kind(KnnBindings::new(at(2), at(512), at(1024), at(2048))),
        ErrorKind::BindingOffsetMisaligned
    );
    assert_eq!(
        kind(KnnBindings::new(
            at(0),
            TensorBinding::new(&small),
            at(1024),
            at(2048)
        )),
        ErrorKind::BindingTooSmall
    );
    assert_eq!(
        kind(KnnBindings::new(at(0), at(512), at(1024), at(2048)).with_allow_list(at(3000))),
        ErrorKind::ExtraBinding
    );
    let with_allow = Knn::new(
        ctx,
        &desc
            .clone()
            .with_allow_list(TensorDesc::new(DataType::U8, &[5])),
    )
    .unwrap();
    assert_eq!(
        with_allow
            .prepare(&KnnBindings::new(at(0), at(512), at(1024), at(2048)))
            .unwrap_err()
            .kind(),
        ErrorKind::MissingBinding
    );
}

/// Codes too long for a workgroup's own counters (past 2,559 bits) count straight in the
/// search's scratch; the longest codes a search takes (8,192 bits) among them.
#[test]
fn long_codes_count_in_device_memory() {
    let ctx = ctx();
    for (data_type, words) in [
        (DataType::U64, 48),
        (DataType::U8, 1024),
        (DataType::U32, 256),
    ] {
        let s = Search {
            queries: Codes::new(data_type, 3, words),
            codes: Codes::new(data_type, 300, words),
            k: 25,
            index_type: DataType::I64,
            allow: None,
        };
        run(ctx, &s, u64::from(words), 0x81);
    }
}

/// Eight threads searching on one context at once, each its own codes and `k`: every
/// result exact (the kernels are made once, by whichever thread comes first).
#[test]
fn searches_from_many_threads_on_one_context() {
    let ctx = ctx();
    std::thread::scope(|scope| {
        for thread in 0..8u32 {
            scope.spawn(move || {
                let words = [2, 8, 16, 32][thread as usize % 4];
                let s = Search {
                    queries: Codes::new(DataType::U32, 3 + thread, words),
                    codes: Codes::new(DataType::U32, 900 + 100 * thread, words),
                    k: [1, 7, 64, 300][thread as usize % 4],
                    index_type: DataType::I64,
                    allow: None,
                };
                for round in 0..3u64 {
                    run(ctx, &s, u64::from(thread) * 10 + round, 0x5a);
                }
            });
        }
    });
}
